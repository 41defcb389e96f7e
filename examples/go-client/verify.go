// Checking the service's signatures (docs/user/verifying.md, schema/json/Signature.json): an
// event counts only if it is signed by one of the service's public keys over its canonical form,
// and is about the observation (and, for a verdict, the request) this client asked about.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/nats-io/nkeys"
)

// trusted says why an event does not count, or "" when it does.
func trusted(data []byte, keys []string, observationID, requestKey string) string {
	event, problem := decodeObject(data)
	if problem == "" {
		problem = signatureProblem(event, keys)
	}
	if problem != "" {
		return problem
	}
	if event["observationId"] != observationID {
		return fmt.Sprintf("an event of observation %v", event["observationId"])
	}
	if event["type"] != "verdict" {
		return ""
	}
	// The verdict carries its own signature (what makes a copy of it evidence); check it too.
	verdict, _ := event["verdict"].(map[string]any)
	if problem := signatureProblem(verdict, keys); problem != "" {
		return "its verdict: " + problem
	}
	if verdict["observationId"] != observationID || verdict["key"] != requestKey {
		return fmt.Sprintf("a verdict of observation %v, key %v", verdict["observationId"], verdict["key"])
	}
	return ""
}

func decodeObject(data []byte) (map[string]any, string) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber() // each number's text as received: the canonical form keeps it
	var body map[string]any
	if err := decoder.Decode(&body); err != nil {
		return nil, "not a JSON object"
	}
	return body, ""
}

// signatureProblem checks an object's `signature` member against keys: "" when it verifies.
func signatureProblem(body map[string]any, keys []string) string {
	signature, ok := body["signature"].(map[string]any)
	if !ok {
		return "no signature"
	}
	key, _ := signature["key"].(string)
	sig, err := base64.RawURLEncoding.DecodeString(fmt.Sprint(signature["sig"]))
	if err != nil || len(sig) != 64 {
		return "a malformed signature"
	}
	known := false
	for _, candidate := range keys {
		known = known || candidate == key
	}
	verifier, err := nkeys.FromPublicKey(key)
	if !known || !nkeys.IsValidPublicServerKey(key) || err != nil {
		return "signed by " + key + ", not a key given"
	}
	// What is signed: the object without its own signature member (nested ones stay).
	covered := make(map[string]any, len(body))
	for name, value := range body {
		if name != "signature" {
			covered[name] = value
		}
	}
	var content strings.Builder
	canonical(&content, covered)
	if verifier.Verify([]byte(content.String()), sig) != nil {
		return "a signature that does not match the content"
	}
	return ""
}

// canonical writes RFC 8785's form of a value decoded with UseNumber: members sorted by key in
// UTF-16 code units, no white space, strings escaped as ECMAScript's JSON.stringify does.
func canonical(out *strings.Builder, value any) {
	switch v := value.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		sort.Slice(names, func(i, j int) bool { return lessUTF16(names[i], names[j]) })
		list(out, '{', '}', len(names), func(i int) {
			canonicalString(out, names[i])
			out.WriteByte(':')
			canonical(out, v[names[i]])
		})
	case []any:
		list(out, '[', ']', len(v), func(i int) { canonical(out, v[i]) })
	case string:
		canonicalString(out, v)
	case json.Number:
		out.WriteString(v.String())
	case bool:
		fmt.Fprint(out, v)
	case nil:
		out.WriteString("null")
	}
}

// list writes n items between open and close, separated by commas.
func list(out *strings.Builder, open, close byte, n int, item func(int)) {
	out.WriteByte(open)
	for i := 0; i < n; i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		item(i)
	}
	out.WriteByte(close)
}

func canonicalString(out *strings.Builder, s string) {
	out.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			out.WriteString(`\"`)
		case '\\':
			out.WriteString(`\\`)
		case '\b':
			out.WriteString(`\b`)
		case '\f':
			out.WriteString(`\f`)
		case '\n':
			out.WriteString(`\n`)
		case '\r':
			out.WriteString(`\r`)
		case '\t':
			out.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(out, `\u%04x`, r)
			} else {
				out.WriteRune(r)
			}
		}
	}
	out.WriteByte('"')
}

func lessUTF16(a, b string) bool {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}
