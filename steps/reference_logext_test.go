package steps_test

// logextBreakCases are the break-table entries of logging, extensions and deprecations (LOG, EXT, DEP).
var logextBreakCases = []breakCase{}
