package nilcheck

// nilcheck.go: IsNil and Reason, the typed-nil check.

import (
	"fmt"
	"reflect"
)

// IsNil reports whether v is nil, or an interface value that holds a nil
// pointer, map, func, channel, slice or interface: a typed nil, such as
// (*elasticloadbalancingv2.Client)(nil), which passes a plain v == nil
// test and panics on its first call.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// Reason is an input error's reason for a nil v: "is nil", or for a typed
// nil "is a nil *elasticloadbalancingv2.Client".
func Reason(v any) string {
	if v == nil {
		return "is nil"
	}
	return fmt.Sprintf("is a nil %T", v)
}
