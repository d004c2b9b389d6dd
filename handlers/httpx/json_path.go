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

// typeErrorPath is the path of the key a json.UnmarshalTypeError's Field
// names, through type t. Since Go 1.24 encoding/json puts in the Go name of
// each embedded struct it went through (EventDetail.hits), a key no body
// has; typeErrorPath leaves those out (hits), naming the key as for a
// struct that has the embedded fields as its own.
func typeErrorPath(t reflect.Type, field string) string {
	if field == "" {
		return ""
	}
	var keep []string
	for _, seg := range strings.Split(field, ".") {
		// Neither an element's index nor a map's key is in the path.
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t != nil && t.Kind() == reflect.Struct {
			if e, ok := embeddedStruct(t, seg); ok {
				t = e
				continue
			}
			t, _ = jsonField(t, seg)
		} else {
			t = nil
		}
		keep = append(keep, seg)
	}
	return strings.Join(keep, ".")
}

// embeddedStruct is the type of struct t's embedded struct field named
// name, one whose fields encoding/json reads as t's own (no tag).
func embeddedStruct(t reflect.Type, name string) (reflect.Type, bool) {
	f, ok := t.FieldByName(name)
	if !ok || !f.Anonymous || len(f.Index) != 1 || f.Tag.Get("json") != "" {
		return nil, false
	}
	ft := f.Type
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	return ft, ft.Kind() == reflect.Struct
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
