package doccheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// jsonValue is a decoded JSON value that remembers where it starts, so a
// problem in a configuration file can name its line and column.
type jsonValue struct {
	kind    jsonKind
	members []jsonMember // objects, in file order
	items   []*jsonValue // arrays
	str     string       // strings
	num     json.Number  // numbers
	off     int          // byte offset of the value's first character
}

type jsonMember struct {
	key string
	val *jsonValue
}

type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// get is the value of key in an object (the last one, as JSON.parse keeps), or nil.
func (v *jsonValue) get(key string) *jsonValue {
	if v == nil || v.kind != jsonObject {
		return nil
	}
	var found *jsonValue
	for _, m := range v.members {
		if m.key == key {
			found = m.val
		}
	}
	return found
}

// parseJSONPos decodes data, or returns the offset of the syntax error.
func parseJSONPos(data []byte) (*jsonValue, int, error) {
	if err := json.Unmarshal(data, new(any)); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, int(syn.Offset), err
		}
		return nil, 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeJSONPos(dec, data)
	return v, 0, err
}

func decodeJSONPos(dec *json.Decoder, data []byte) (*jsonValue, error) {
	off := skipJSONSeparators(data, int(dec.InputOffset()))
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	v := &jsonValue{off: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v.kind = jsonObject
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				child, err := decodeJSONPos(dec, data)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, jsonMember{key: key, val: child})
			}
		case '[':
			v.kind = jsonArray
			for dec.More() {
				child, err := decodeJSONPos(dec, data)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, child)
			}
		default:
			return nil, fmt.Errorf("unexpected %v", t)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		v.kind, v.str = jsonString, t
	case json.Number:
		v.kind, v.num = jsonNumber, t
	case bool:
		v.kind = jsonBool
	case nil:
		v.kind = jsonNull
	}
	return v, nil
}

func skipJSONSeparators(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n', ':', ',':
			i++
		default:
			return i
		}
	}
	return i
}

// lineCol turns a byte offset into a 1-based line and column (in characters).
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}
