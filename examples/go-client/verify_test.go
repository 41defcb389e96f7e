package main

import "testing"

// The known answer of docs/user/verifying.md (src/signing/signature.test.ts signs it): the
// same bytes canonicalised here must verify, and nothing else.
const testKey = "NDV56JXZSGQDWYYKNHNPJGOMJASLD6YH5OCFXJEMM3CT4GRVZ3VYGRTQ"
const testSig = "FdSGXqPHwax3rsswnXtkl9YIPy2sJsv2ZsDCLQL1XH8_bWVl_xQwG6XJH-m4S4xHozUaGvH0t9W90sCLsN3jAA"

func TestKnownAnswer(t *testing.T) {
	signed := `{ "b": [1, "é", 1.5], "signature": {"key": "` + testKey + `", "sig": "` + testSig + `"}, "a": {"z": true, "y": null} }`
	for name, c := range map[string]struct {
		body, keys string
		want       string
	}{
		"as signed, written otherwise": {signed, testKey, ""},
		"another value":                {`{"b":[1,"é",2.5],"a":{"z":true,"y":null},"signature":{"key":"` + testKey + `","sig":"` + testSig + `"}}`, testKey, "a signature that does not match the content"},
		"a key not given":              {signed, "NCPPGQZFXWV2SYDYBAJCMGOB5XT2AC3VTQYEIAQHC6INVDCQEJTIOHVT", "signed by " + testKey + ", not a key given"},
		"no signature":                 {`{"a":1}`, testKey, "no signature"},
	} {
		body, problem := decodeObject([]byte(c.body))
		if problem == "" {
			problem = signatureProblem(body, []string{c.keys})
		}
		if problem != c.want {
			t.Errorf("%s: got %q, want %q", name, problem, c.want)
		}
	}
}
