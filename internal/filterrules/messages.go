package filterrules

import "fmt"

// The server's 400 messages for a filter (contract §7), as fmt formats:
// the verbs take the offending position, type, operator or value.
const (
	MsgUnexpectedToken      = "Unexpected token in JSON at position %d"
	MsgNotArray             = "Filter param needs to be an array"
	MsgTypeRequired         = "Type is required"
	MsgTypeNotSupported     = "Filter type %s is not supported"
	MsgOperatorRequired     = "Operator is required"
	MsgOperatorNotSupported = "Filter operator %s is not supported"
	MsgValuesRequired       = "Values is required"
	MsgValuesNotArray       = "Filter values must be an array"
	MsgValueNotID           = "Filter value \"%s\" is not a valid ID"
)

// Error is a filter the server refuses. Message is the exact text of its
// 400 answer.
type Error struct {
	Message string
}

// Error returns the server's message.
func (e *Error) Error() string { return e.Message }

// errorf returns an [*Error] whose Message is format filled with args.
func errorf(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}
