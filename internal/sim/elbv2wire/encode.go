package elbv2wire

// encode.go: encoding SDK outputs as Query-protocol XML.

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
	smithytime "github.com/aws/smithy-go/time"
	"github.com/aws/smithy-go/traits"
)

// xmlWriter is a smithy.ShapeSerializer that writes an Output as the
// awsQuery protocol's result element: the SDK's generated Serialize method of
// the Output walks its members with their schemas, and the writer names each
// element after the member (or its xmlName trait), writes list items as
// <member> and map entries as <entry><key/><value/></entry>, which is what
// the SDK's awsQuery deserializer reads.
type xmlWriter struct {
	buf bytes.Buffer
	// root names the outermost structure, the operation's "XResult".
	root  string
	stack []xmlFrame
	// err is the first shape the writer cannot write.
	err error
}

type frameKind int

const (
	frameStruct frameKind = iota
	frameList
	frameMap
	frameUnion
)

type xmlFrame struct {
	kind    frameKind
	name    string
	inEntry bool // a map frame between WriteKey and its value
}

var _ smithy.ShapeSerializer = (*xmlWriter)(nil)

func newXMLWriter(root string) *xmlWriter { return &xmlWriter{root: root} }

func (w *xmlWriter) top() *xmlFrame {
	if len(w.stack) == 0 {
		return nil
	}
	return &w.stack[len(w.stack)-1]
}

// elementName is the element of a value written with schema, in context.
func (w *xmlWriter) elementName(schema *smithy.Schema) string {
	top := w.top()
	switch {
	case top == nil:
		return w.root
	case top.kind == frameList:
		if schema != nil {
			if xn, ok := smithy.SchemaDirectTrait[*traits.XMLName](schema); ok {
				return xn.Name
			}
		}
		return "member"
	case top.kind == frameMap && top.inEntry:
		return "value"
	}
	if schema == nil {
		return "member"
	}
	if xn, ok := smithy.SchemaDirectTrait[*traits.XMLName](schema); ok {
		return xn.Name
	}
	return schema.MemberName()
}

func (w *xmlWriter) open(name string) {
	w.buf.WriteByte('<')
	w.buf.WriteString(name)
	w.buf.WriteByte('>')
}

func (w *xmlWriter) close(name string) {
	w.buf.WriteString("</")
	w.buf.WriteString(name)
	w.buf.WriteByte('>')
	w.valueDone()
}

// valueDone closes the map entry whose value was just written.
func (w *xmlWriter) valueDone() {
	if top := w.top(); top != nil && top.kind == frameMap && top.inEntry {
		w.buf.WriteString("</entry>")
		top.inEntry = false
	}
}

func (w *xmlWriter) scalar(schema *smithy.Schema, text string) {
	name := w.elementName(schema)
	w.open(name)
	_ = xml.EscapeText(&w.buf, []byte(text))
	w.close(name)
}

func (w *xmlWriter) fail(what string) {
	if w.err == nil {
		w.err = fmt.Errorf("elbv2wire: encode: %s values are not part of the ELBv2 outputs the endpoint writes", what)
	}
}

// Bytes implements [smithy.ShapeSerializer].
func (w *xmlWriter) Bytes() []byte { return w.buf.Bytes() }

// WriteInt8 implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteInt8(s *smithy.Schema, v int8) { w.scalar(s, strconv.FormatInt(int64(v), 10)) }

// WriteInt16 implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteInt16(s *smithy.Schema, v int16) {
	w.scalar(s, strconv.FormatInt(int64(v), 10))
}

// WriteInt32 implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteInt32(s *smithy.Schema, v int32) {
	w.scalar(s, strconv.FormatInt(int64(v), 10))
}

// WriteInt64 implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteInt64(s *smithy.Schema, v int64) { w.scalar(s, strconv.FormatInt(v, 10)) }

func formatFloat(v float64, bits int) string {
	switch {
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'f', -1, bits)
}

// WriteFloat32 implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteFloat32(s *smithy.Schema, v float32) {
	w.scalar(s, formatFloat(float64(v), 32))
}

// WriteFloat64 implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteFloat64(s *smithy.Schema, v float64) { w.scalar(s, formatFloat(v, 64)) }

// WriteBool implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteBool(s *smithy.Schema, v bool) { w.scalar(s, strconv.FormatBool(v)) }

// WriteString implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteString(s *smithy.Schema, v string) { w.scalar(s, v) }

// WriteBigInt implements [smithy.ShapeSerializer]; ELBv2 has no such values.
func (w *xmlWriter) WriteBigInt(*smithy.Schema, *big.Int) { w.fail("BigInteger") }

// WriteBigFloat implements [smithy.ShapeSerializer]; ELBv2 has no such values.
func (w *xmlWriter) WriteBigFloat(*smithy.Schema, *big.Float) { w.fail("BigDecimal") }

// WriteDocument implements [smithy.ShapeSerializer]; ELBv2 has no such values.
func (w *xmlWriter) WriteDocument(*smithy.Schema, document.Value) { w.fail("document") }

// WriteBlob implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteBlob(s *smithy.Schema, v []byte) {
	if v == nil {
		return
	}
	w.scalar(s, base64.StdEncoding.EncodeToString(v))
}

// WriteTime implements [smithy.ShapeSerializer], in the member's timestamp
// format (ISO 8601 date-time by default, as the Query protocol's XML uses).
func (w *xmlWriter) WriteTime(s *smithy.Schema, v time.Time) {
	format := "date-time"
	if s != nil {
		if t, ok := smithy.SchemaTrait[*traits.TimestampFormat](s); ok {
			format = t.Format
		}
	}
	switch format {
	case "http-date":
		w.scalar(s, smithytime.FormatHTTPDate(v))
	case "epoch-seconds":
		w.scalar(s, strconv.FormatFloat(smithytime.FormatEpochSeconds(v), 'f', -1, 64))
	default:
		w.scalar(s, smithytime.FormatDateTime(v))
	}
}

// WriteNil implements [smithy.ShapeSerializer]: a nil map value is an entry
// without a value; anything else is left out.
func (w *xmlWriter) WriteNil(*smithy.Schema) { w.valueDone() }

func (w *xmlWriter) push(kind frameKind, s *smithy.Schema) {
	name := w.elementName(s)
	w.open(name)
	w.stack = append(w.stack, xmlFrame{kind: kind, name: name})
}

func (w *xmlWriter) pop(kind frameKind) {
	top := w.top()
	if top == nil || top.kind != kind {
		if w.err == nil {
			w.err = fmt.Errorf("elbv2wire: encode: unbalanced close")
		}
		return
	}
	name := top.name
	w.stack = w.stack[:len(w.stack)-1]
	w.close(name)
}

// WriteStruct implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteStruct(s *smithy.Schema) { w.push(frameStruct, s) }

// CloseStruct implements [smithy.ShapeSerializer].
func (w *xmlWriter) CloseStruct() { w.pop(frameStruct) }

// WriteUnion implements [smithy.ShapeSerializer]: the union's element holds
// its one variant's element.
func (w *xmlWriter) WriteUnion(s, _ *smithy.Schema) { w.push(frameUnion, s) }

// CloseUnion implements [smithy.ShapeSerializer].
func (w *xmlWriter) CloseUnion() { w.pop(frameUnion) }

// WriteList implements [smithy.ShapeSerializer]: a wrapped list, items as
// <member>. ELBv2 has no xmlFlattened lists.
func (w *xmlWriter) WriteList(s *smithy.Schema) {
	if s != nil {
		if _, ok := smithy.SchemaTrait[*traits.XMLFlattened](s); ok {
			w.fail("flattened list")
		}
	}
	w.push(frameList, s)
}

// CloseList implements [smithy.ShapeSerializer].
func (w *xmlWriter) CloseList() { w.pop(frameList) }

// WriteMap implements [smithy.ShapeSerializer]: a wrapped map of
// <entry><key/><value/></entry>.
func (w *xmlWriter) WriteMap(s *smithy.Schema) {
	if s != nil {
		if _, ok := smithy.SchemaTrait[*traits.XMLFlattened](s); ok {
			w.fail("flattened map")
		}
	}
	w.push(frameMap, s)
}

// WriteKey implements [smithy.ShapeSerializer].
func (w *xmlWriter) WriteKey(_ *smithy.Schema, key string) {
	top := w.top()
	if top == nil || top.kind != frameMap {
		if w.err == nil {
			w.err = fmt.Errorf("elbv2wire: encode: map key outside a map")
		}
		return
	}
	w.valueDone()
	w.buf.WriteString("<entry><key>")
	_ = xml.EscapeText(&w.buf, []byte(key))
	w.buf.WriteString("</key>")
	top.inEntry = true
}

// CloseMap implements [smithy.ShapeSerializer].
func (w *xmlWriter) CloseMap() {
	w.valueDone()
	w.pop(frameMap)
}

// resultBody encodes out as the body of a successful response to action.
// out may be nil (a backend that returned a nil Output): the result is
// empty.
func resultBody(action, requestID string, out smithy.Serializable) ([]byte, error) {
	w := newXMLWriter(action + "Result")
	if out != nil {
		out.Serialize(w)
	} else {
		w.open(w.root)
		w.close(w.root)
	}
	if w.err != nil {
		return nil, w.err
	}
	if len(w.stack) != 0 {
		return nil, fmt.Errorf("elbv2wire: encode: %d unclosed elements", len(w.stack))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<%sResponse xmlns="%s">`, action, Namespace)
	b.Write(w.Bytes())
	b.WriteString("<ResponseMetadata><RequestId>")
	_ = xml.EscapeText(&b, []byte(requestID))
	fmt.Fprintf(&b, "</RequestId></ResponseMetadata></%sResponse>", action)
	return b.Bytes(), nil
}

// errorBody encodes an awsQuery error response.
func errorBody(code, message, requestID string, status int) []byte {
	kind := "Sender"
	if status >= 500 {
		kind = "Receiver"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<ErrorResponse xmlns="%s"><Error><Type>%s</Type><Code>`, Namespace, kind)
	_ = xml.EscapeText(&b, []byte(code))
	b.WriteString("</Code><Message>")
	_ = xml.EscapeText(&b, []byte(message))
	b.WriteString("</Message></Error><RequestId>")
	_ = xml.EscapeText(&b, []byte(requestID))
	b.WriteString("</RequestId></ErrorResponse>")
	return b.Bytes()
}
