// dsse-verify checks a stagewatch verdict attestation with code stagewatch did not write: the DSSE
// reference implementation's verifier and key loader (github.com/secure-systems-lab/
// go-securesystemslib) and the in-toto attestation framework's Statement v1 type and validation
// (github.com/in-toto/attestation/go/v1). The end-to-end tests run it on what `stagewatch observe
// --verdict-file` wrote, with the key `stagewatch keys pem` printed.
//
//	dsse-verify -key PUBLIC_KEY.pem -type PREDICATE_TYPE ENVELOPE.json
//
// On success it prints the Statement as JSON and exits 0; a signature that does not verify with
// the key, a payload that is not an in-toto Statement v1, or another predicate type exits 1 with
// the reason on stderr; bad usage or an unreadable file exits 2.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	attestation "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	"google.golang.org/protobuf/encoding/protojson"
)

// inTotoPayloadType is the DSSE payloadType of an in-toto Statement.
const inTotoPayloadType = "application/vnd.in-toto+json"

func main() {
	keyFile := flag.String("key", "", "the signer's public key, PEM (SubjectPublicKeyInfo)")
	predicateType := flag.String("type", "", "the predicate type the Statement must carry")
	flag.Parse()
	if *keyFile == "" || *predicateType == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: dsse-verify -key PUBLIC_KEY.pem -type PREDICATE_TYPE ENVELOPE.json")
		os.Exit(2)
	}
	statement, err := verify(*keyFile, flag.Arg(0), *predicateType)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsse-verify: %v\n", err)
		if _, unreadable := err.(inputError); unreadable {
			os.Exit(2)
		}
		os.Exit(1)
	}
	out, err := protojson.Marshal(statement)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dsse-verify: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}

// inputError is a file that cannot be read or parsed at all: bad input, not a refusal.
type inputError struct{ error }

func verify(keyFile, envelopeFile, predicateType string) (*attestation.Statement, error) {
	pem, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, inputError{err}
	}
	key, err := signerverifier.LoadKey(pem)
	if err != nil {
		return nil, inputError{fmt.Errorf("%s: %w", keyFile, err)}
	}
	verifier, err := signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
	if err != nil {
		return nil, inputError{fmt.Errorf("%s: %w", keyFile, err)}
	}
	raw, err := os.ReadFile(envelopeFile)
	if err != nil {
		return nil, inputError{err}
	}
	var envelope dsse.Envelope
	if err := json.Unmarshal(raw, &envelope); err != nil {
		return nil, inputError{fmt.Errorf("%s is not a DSSE envelope: %w", envelopeFile, err)}
	}
	envelopeVerifier, err := dsse.NewEnvelopeVerifier(verifier)
	if err != nil {
		return nil, err
	}
	_, payload, err := envelopeVerifier.VerifyAndDecode(context.Background(), &envelope)
	if err != nil {
		return nil, fmt.Errorf("signature refused: %w", err)
	}
	if envelope.PayloadType != inTotoPayloadType {
		return nil, fmt.Errorf("payloadType %q, not %q", envelope.PayloadType, inTotoPayloadType)
	}
	var statement attestation.Statement
	if err := protojson.Unmarshal(payload, &statement); err != nil {
		return nil, fmt.Errorf("payload is not an in-toto Statement: %w", err)
	}
	if err := statement.Validate(); err != nil {
		return nil, fmt.Errorf("invalid in-toto Statement: %w", err)
	}
	if statement.GetPredicateType() != predicateType {
		return nil, fmt.Errorf("predicateType %q, not %q", statement.GetPredicateType(), predicateType)
	}
	return &statement, nil
}
