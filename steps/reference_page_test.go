package steps_test

// pageBreakCases are the break-table entries of pagination and caching (PAGE, CACHE).
var pageBreakCases = []breakCase{}
