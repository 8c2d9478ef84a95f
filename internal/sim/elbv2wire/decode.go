package elbv2wire

// decode.go: decoding Query-protocol forms into SDK inputs.

import (
	"encoding/base64"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	smithytime "github.com/aws/smithy-go/time"
)

// The Query protocol flattens an Input into form parameters: a member is
// its name, a nested member is "Parent.Member", a list item is
// "List.member.N" (N from 1), a map entry is "Map.entry.N.key" and
// "Map.entry.N.value", and an empty list is "List=" with no items. The SDK's
// awsQuery serializer names members after their Smithy member names, which
// are the Go field names of the SDK's Input types (ELBv2's model has no
// xmlName or xmlFlattened traits); the round-trip tests hold the decoder to
// the SDK's own serializer for every served Input.

// paramError is a parameter the endpoint cannot read into the Input. The
// endpoint answers it with ValidationError.
type paramError struct {
	param  string
	reason string
}

func (e *paramError) Error() string {
	if e.param == "" {
		return e.reason
	}
	return fmt.Sprintf("parameter %s: %s", e.param, e.reason)
}

// param is one node of the parameter tree.
type param struct {
	value    *string
	children map[string]*param
}

// paramTree builds the tree of form, without Action and Version. A
// parameter given more than once fails.
func paramTree(form url.Values) (*param, error) {
	root := &param{}
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "Action" || k == "Version" {
			continue
		}
		vals := form[k]
		if len(vals) != 1 {
			return nil, &paramError{param: k, reason: fmt.Sprintf("given %d times", len(vals))}
		}
		n := root
		for _, part := range strings.Split(k, ".") {
			if part == "" {
				return nil, &paramError{param: k, reason: "empty name segment"}
			}
			if n.children == nil {
				n.children = map[string]*param{}
			}
			c, ok := n.children[part]
			if !ok {
				c = &param{}
				n.children[part] = c
			}
			n = c
		}
		v := vals[0]
		n.value = &v
	}
	return root, nil
}

// decodeForm fills in, a pointer to an SDK Input struct, from form.
func decodeForm(form url.Values, in any) error {
	root, err := paramTree(form)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("elbv2wire: decode into %T: want a pointer to a struct", in)
	}
	return decodeStruct(v.Elem(), root, "")
}

var timeType = reflect.TypeFor[time.Time]()

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func decodeValue(v reflect.Value, p *param, path string) error {
	t := v.Type()
	if t == timeType {
		s, err := leaf(p, path)
		if err != nil {
			return err
		}
		tm, err := smithytime.ParseDateTime(s)
		if err != nil {
			return &paramError{param: path, reason: fmt.Sprintf("%q is not an ISO 8601 date-time", s)}
		}
		v.Set(reflect.ValueOf(tm))
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		e := reflect.New(t.Elem())
		if err := decodeValue(e.Elem(), p, path); err != nil {
			return err
		}
		v.Set(e)
		return nil
	case reflect.Struct:
		if p.value != nil && *p.value != "" {
			return &paramError{param: path, reason: "is a structure, not a value"}
		}
		return decodeStruct(v, p, path)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s, err := leaf(p, path)
			if err != nil {
				return err
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return &paramError{param: path, reason: "is not base64"}
			}
			v.SetBytes(b)
			return nil
		}
		return decodeList(v, p, path)
	case reflect.Map:
		return decodeMap(v, p, path)
	case reflect.String:
		s, err := leaf(p, path)
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		s, err := leaf(p, path)
		if err != nil {
			return err
		}
		switch s {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return &paramError{param: path, reason: fmt.Sprintf("%q is not a boolean", s)}
		}
		return nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		s, err := leaf(p, path)
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			return &paramError{param: path, reason: fmt.Sprintf("%q is not an integer of %d bits", s, t.Bits())}
		}
		v.SetInt(n)
		return nil
	case reflect.Float32, reflect.Float64:
		s, err := leaf(p, path)
		if err != nil {
			return err
		}
		var f float64
		switch s {
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		case "NaN":
			f = math.NaN()
		default:
			if f, err = strconv.ParseFloat(s, t.Bits()); err != nil {
				return &paramError{param: path, reason: fmt.Sprintf("%q is not a number", s)}
			}
		}
		v.SetFloat(f)
		return nil
	}
	return &paramError{param: path, reason: fmt.Sprintf("the endpoint cannot decode a %s", t)}
}

// leaf returns the value of a parameter that must not have children.
func leaf(p *param, path string) (string, error) {
	if len(p.children) > 0 {
		return "", &paramError{param: path, reason: "is a value, not a structure or a list"}
	}
	if p.value == nil {
		return "", &paramError{param: path, reason: "has no value"}
	}
	return *p.value, nil
}

// fieldIndex finds the exported, not embedded, field of t named name.
func fieldIndex(t reflect.Type, name string) ([]int, bool) {
	f, ok := t.FieldByName(name)
	if !ok || !f.IsExported() || f.Anonymous {
		return nil, false
	}
	return f.Index, true
}

func decodeStruct(v reflect.Value, p *param, path string) error {
	names := make([]string, 0, len(p.children))
	for name := range p.children {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		idx, ok := fieldIndex(v.Type(), name)
		if !ok {
			return &paramError{param: join(path, name), reason: "unknown parameter"}
		}
		if err := decodeValue(v.FieldByIndex(idx), p.children[name], join(path, name)); err != nil {
			return err
		}
	}
	return nil
}

// items returns the numbered children 1..N of p, in order.
func items(p *param, path string) ([]*param, error) {
	out := make([]*param, len(p.children))
	for k, c := range p.children {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > len(p.children) || strconv.Itoa(n) != k {
			return nil, &paramError{param: join(path, k), reason: fmt.Sprintf("item numbers must run from 1 to %d", len(p.children))}
		}
		out[n-1] = c
	}
	return out, nil
}

func decodeList(v reflect.Value, p *param, path string) error {
	if len(p.children) == 0 {
		if p.value == nil || *p.value != "" {
			return &paramError{param: path, reason: "is a list: give its items as " + path + ".member.N"}
		}
		v.Set(reflect.MakeSlice(v.Type(), 0, 0)) // the empty-list form, "List="
		return nil
	}
	m, ok := p.children["member"]
	if len(p.children) != 1 || !ok || p.value != nil {
		return &paramError{param: path, reason: "is a list: give its items as " + path + ".member.N"}
	}
	path = join(path, "member")
	list, err := items(m, path)
	if err != nil {
		return err
	}
	s := reflect.MakeSlice(v.Type(), len(list), len(list))
	for i, item := range list {
		if err := decodeValue(s.Index(i), item, join(path, strconv.Itoa(i+1))); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

func decodeMap(v reflect.Value, p *param, path string) error {
	if len(p.children) == 0 {
		if p.value == nil || *p.value != "" {
			return &paramError{param: path, reason: "is a map: give its entries as " + path + ".entry.N.key and .value"}
		}
		v.Set(reflect.MakeMap(v.Type()))
		return nil
	}
	e, ok := p.children["entry"]
	if len(p.children) != 1 || !ok || p.value != nil {
		return &paramError{param: path, reason: "is a map: give its entries as " + path + ".entry.N.key and .value"}
	}
	path = join(path, "entry")
	list, err := items(e, path)
	if err != nil {
		return err
	}
	m := reflect.MakeMapWithSize(v.Type(), len(list))
	for i, entry := range list {
		ep := join(path, strconv.Itoa(i+1))
		for name := range entry.children {
			if name != "key" && name != "value" {
				return &paramError{param: join(ep, name), reason: "unknown parameter: a map entry has a key and a value"}
			}
		}
		kp, ok := entry.children["key"]
		if !ok {
			return &paramError{param: join(ep, "key"), reason: "missing"}
		}
		k := reflect.New(v.Type().Key()).Elem()
		if err := decodeValue(k, kp, join(ep, "key")); err != nil {
			return err
		}
		val := reflect.New(v.Type().Elem()).Elem()
		if vp, ok := entry.children["value"]; ok {
			if err := decodeValue(val, vp, join(ep, "value")); err != nil {
				return err
			}
		}
		m.SetMapIndex(k, val)
	}
	v.Set(m)
	return nil
}
