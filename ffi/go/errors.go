package keyroute

/*
#include "keyroute.h"
*/
import "C"

import (
	"errors"
	"strconv"
)

// Code is a stable code of keyroute's error table (the C ABI's kr_status): the same number and
// name on every keyroute surface. The constants are in errors_gen.go, generated from the table.
type Code uint32

// Name is the code's stable snake_case name ("invalid_spec"), as vector files write it; "" for
// a number that is no code.
func (c Code) Name() string { return c.info().name }

// Category is the code's category ("value", "range", "lookup", "type", "io", "memory",
// "internal").
func (c Code) Category() string { return c.info().category }

// Description says what the code means.
func (c Code) Description() string { return c.info().description }

// String is the code's name and number, "invalid_spec (2)".
func (c Code) String() string {
	name := c.Name()
	if name == "" {
		name = "unknown code"
	}
	return name + " (" + strconv.FormatUint(uint64(c), 10) + ")"
}

func (c Code) info() codeInfo {
	for _, i := range table {
		if i.code == c {
			return i
		}
	}
	return codeInfo{}
}

// Codes lists every code of the error table, in its order.
func Codes() []Code {
	out := make([]Code, len(table))
	for i, row := range table {
		out[i] = row.code
	}
	return out
}

// Error is a failed keyroute call: its stable code and the library's message (for people; the
// code is the contract). errors.Is(err, ErrX) holds when err is an *Error with ErrX's code.
type Error struct {
	// Code is the kind of failure.
	Code Code
	// Message describes this failure.
	Message string
}

// Error gives "keyroute: <name> (<code>): <message>".
func (e *Error) Error() string {
	if e.Message == "" {
		return "keyroute: " + e.Code.String()
	}
	return "keyroute: " + e.Code.String() + ": " + e.Message
}

// Is matches the sentinel of the error's kind (any *Error of the same code).
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// ErrClosed is returned by a call on a handle after its Close.
var ErrClosed = errors.New("keyroute: the handle is closed")

// check turns a status into nil or an *Error with the message of the failure. The message is
// per C thread, so callers whose call may fail hold runtime.LockOSThread around the call and
// this read.
func check(st C.kr_status) error {
	if st == C.KR_OK {
		return nil
	}
	return &Error{Code: Code(st), Message: C.GoString(C.kr_last_error_message())}
}
