package httpx

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// UnknownFieldPath says where in data the first key lies that the type t
// has no field for, as events[1].zz; "" when it finds none. encoding/json
// names only the key, which in a batch does not say which element is wrong.
// It runs only once decoding has already failed on an unknown field.
//
// Why it is written here: encoding/json (v1) reports only the key;
// encoding/json/v2, whose errors carry the JSON pointer (/events/1/zz), is
// still behind GOEXPERIMENT=jsonv2 in Go 1.26, and no maintained v1
// library reports the path without replacing the decoder on every request's
// path. It costs nothing on valid bodies. Replace it with v2's error once
// v2 is the default.
func UnknownFieldPath(data []byte, t reflect.Type) string {
	path, _ := walkUnknown(json.NewDecoder(bytes.NewReader(data)), t, "")
	return path
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walkUnknown reads one value of type t (nil: any) from dec; found reports
// that it met a key t lacks, at path, or a token it could not read.
func walkUnknown(dec *json.Decoder, t reflect.Type, at string) (path string, found bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) || t.Kind() == reflect.Interface) {
		t = nil // decodes itself, or takes anything: no fields to check
	}
	tok, err := dec.Token()
	if err != nil {
		return "", true
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", true
			}
			key, _ := kt.(string)
			var vt reflect.Type
			switch {
			case t == nil:
			case t.Kind() == reflect.Struct:
				f, ok := jsonField(t, key)
				if !ok {
					return join(at, key), true
				}
				vt = f
			case t.Kind() == reflect.Map:
				vt = t.Elem()
			}
			if p, found := walkUnknown(dec, vt, join(at, key)); found {
				return p, true
			}
		}
		if _, err := dec.Token(); err != nil { // }
			return "", true
		}
	case json.Delim('['):
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if p, found := walkUnknown(dec, et, at+"["+strconv.Itoa(i)+"]"); found {
				return p, true
			}
		}
		if _, err := dec.Token(); err != nil { // ]
			return "", true
		}
	}
	return "", false
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// jsonField is the type of the field of struct t that encoding/json would
// decode key into: its name or tag, exactly or else ignoring case, through
// embedded structs.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	var folded reflect.Type
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
		if folded == nil && strings.EqualFold(name, key) {
			folded = f.Type
		}
	}
	return folded, folded != nil
}
