module stagewatch.local/dsse-verify

go 1.26

require (
	github.com/in-toto/attestation v1.2.0
	github.com/secure-systems-lab/go-securesystemslib v0.11.1
	google.golang.org/protobuf v1.36.11
)

require (
	golang.org/x/crypto v0.55.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
