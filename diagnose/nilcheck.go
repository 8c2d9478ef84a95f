package diagnose

// This file is the typed-nil check of the clients Diagnose is handed.

import (
	"fmt"
	"reflect"
)

// isNil reports whether v is nil, or an interface value that holds a nil
// pointer, map, func, channel, slice or interface: a typed nil, such as
// (*elasticloadbalancingv2.Client)(nil), which passes a plain v == nil
// test and panics on its first call.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// nilReason is an [InputError] Reason for a nil v: "is nil", or for a
// typed nil "is a nil *elasticloadbalancingv2.Client".
func nilReason(v any) string {
	if v == nil {
		return "is nil"
	}
	return fmt.Sprintf("is a nil %T", v)
}
