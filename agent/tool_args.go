package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kinds of a tool argument, as JSON Schema names them.
const (
	kindString  = "string"
	kindInteger = "integer"
	kindBoolean = "boolean"
)

// param is one argument of a tool.
type param struct {
	name, kind, desc string
	required         bool
}

// args are a tool call's arguments once they have been checked against the
// tool's params: every value present is of its param's kind.
type args map[string]json.RawMessage

func (a args) str(name string) string {
	var s string
	_ = json.Unmarshal(a[name], &s) // checked against the tool's params already: absent or a JSON string
	return s
}

// int is the argument as a whole number, or def when it was not given.
func (a args) int(name string, def int) int {
	raw, ok := a[name]
	if !ok {
		return def
	}
	n, _ := wholeNumber(raw)
	return n
}

func (a args) bool(name string) bool {
	b, _ := boolean(a[name])
	return b
}

// parseArgs reads a call's arguments and checks them against the tool's
// params, answering in the words a model can act on rather than Go's: which
// argument is missing, unknown or of the wrong kind, and what the JSON got
// wrong. null counts as not given, which is how strict schemas send an
// optional argument left out.
func parseArgs(t *tool, raw json.RawMessage) (args, error) {
	if len(raw) > maxToolArgBytes {
		return nil, toolErrorf("the arguments are too large (%d bytes; at most %d)", len(raw), maxToolArgBytes)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if raw[0] == '"' {
		// Arguments that were not JSON arrive as a JSON string of their text
		// (rawArguments); some models also encode the object twice.
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, toolErrorf("the arguments are not valid JSON; send one JSON object, like %s", t.example())
		}
		inner := bytes.TrimSpace([]byte(text))
		if len(inner) > 0 && inner[0] == '{' && json.Valid(inner) {
			raw = inner
		} else {
			return nil, toolErrorf("the arguments are not valid JSON (%s): %s. Send one JSON object, like %s", jsonFault(inner), excerptText(text, 120), t.example())
		}
	}
	var fields map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &fields) != nil {
		return nil, toolErrorf("the arguments must be a JSON object of named arguments, not %s; send one like %s", jsonKindOf(raw), t.example())
	}
	var unknown []string
	for name := range fields {
		if t.param(name) == nil {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, toolErrorf("%s has no argument %s; its arguments are %s", t.name, strings.Join(unknown, ", "), t.paramList())
	}
	a := args{}
	var faults []string
	for _, p := range t.params {
		v, ok := fields[p.name]
		if !ok || string(v) == "null" {
			if p.required {
				faults = append(faults, fmt.Sprintf("argument %q is required", p.name))
			}
			continue
		}
		switch p.kind {
		case kindString:
			var s string
			if json.Unmarshal(v, &s) != nil {
				faults = append(faults, fmt.Sprintf("argument %q must be a string, not %s", p.name, jsonKindOf(v)))
				continue
			}
		case kindInteger:
			n, ok := wholeNumber(v)
			if !ok {
				faults = append(faults, fmt.Sprintf("argument %q must be a whole number, like 40, not %s", p.name, jsonKindOf(v)))
				continue
			}
			v = json.RawMessage(strconv.Itoa(n))
		case kindBoolean:
			b, ok := boolean(v)
			if !ok {
				faults = append(faults, fmt.Sprintf("argument %q must be true or false, not %s", p.name, jsonKindOf(v)))
				continue
			}
			v = json.RawMessage(strconv.FormatBool(b))
		}
		a[p.name] = v
	}
	if len(faults) > 0 {
		return nil, toolErrorf("%s", strings.Join(faults, "; "))
	}
	return a, nil
}

// wholeNumber reads 12, 12.0 or "12".
func wholeNumber(v json.RawMessage) (int, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		v = json.RawMessage(strings.TrimSpace(s))
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1<<40 {
		return 0, false
	}
	return int(f), true
}

// boolean reads true, false, "true" or "false".
func boolean(v json.RawMessage) (bool, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		v = json.RawMessage(strings.ToLower(strings.TrimSpace(s)))
	}
	var b bool
	if json.Unmarshal(v, &b) != nil {
		return false, false
	}
	return b, true
}

// jsonKindOf names a JSON value's kind the way a person would, with the
// value itself when it is short.
func jsonKindOf(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	kind := ""
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		kind = "the text "
	case 't', 'f':
		kind = "the boolean "
	case 'n':
		return "null"
	default:
		kind = "the number "
	}
	return kind + excerptText(string(v), 40)
}

// jsonFault says in plain words where text stops being JSON.
func jsonFault(text []byte) string {
	err := json.Unmarshal(text, new(any))
	var syn *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(text)) == 0:
		return "they are empty"
	case err != nil && err.Error() == "unexpected end of JSON input":
		return "they end before the object is closed"
	case errors.As(err, &syn):
		at := min(max(int(syn.Offset)-1, 0), len(text)-1)
		return fmt.Sprintf("unexpected %q at character %d", text[at], at+1)
	}
	return "they are not one JSON object"
}

// excerptText is s on one line, cut to about n characters.
func excerptText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
