// Command mcp-conform checks an MCP server against the normative rules of the Model Context
// Protocol specification. See README.md, or run `mcp-conform help`.
package main

import (
	"os"

	"github.com/mcp-conform/mcp-conform/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
