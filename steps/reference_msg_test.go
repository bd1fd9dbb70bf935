package steps_test

// msgBreakCases are the break-table entries of messages, error codes, _meta keys, resultType (MSG, META-008..010, RT, ERR).
var msgBreakCases = []breakCase{}
