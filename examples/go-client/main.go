// A stagewatch client in Go: what an apply tool written in Go (a deploy CLI, a Helm plugin, a
// controller) does after applying. The subjects and the event stream are those of
// schema/asyncapi.yaml and the types follow schema/json/*.json; beyond a few fields, generate them
// from those files with a JSON Schema code generator instead of writing them by hand.
//
//	go run . -deployment payments -namespace payments apps/v1/Deployment/api v1/ConfigMap/api-config
//
// Exit codes are `stagewatch observe`'s: 0 reached, 1 failed or timed out, 2 refused, 3 no service,
// or a success it could not verify.
//
// Given the service's public keys (-verify-key, else $STAGEWATCH_VERIFY_KEY), it believes only
// events the service signed about this observation (verify.go) and skips anything else on the
// subject, a forged verdict included. Given none, it verifies nothing, so a `succeeded` verdict is
// no success (exit 3) unless -allow-unverified says an unsigned service is meant. Unlike
// `stagewatch observe`, it does not learn the key on `<prefix>.keys` (docs/user/verifying.md
// says how, and what that proves): give it the key.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Resource is schema/json/ResourceIdentity.json.
type Resource struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// Request is schema/json/ObservationRequest.json, without the optional fields this client leaves out.
type Request struct {
	Key              string     `json:"key"`
	Deployment       string     `json:"deployment"`
	Require          string     `json:"require"`
	TimeoutSeconds   int        `json:"timeoutSeconds"`
	DefaultNamespace string     `json:"defaultNamespace,omitempty"`
	Resources        []Resource `json:"resources"`
}

// Reply is schema/json/ObserveReply.json: accepted, or refused with an error.
type Reply struct {
	OK            bool   `json:"ok"`
	ObservationID string `json:"observationId"`
	Error         *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Event is schema/json/ObservationEvent.json, tagged by Type.
type Event struct {
	Type     string `json:"type"`
	Stage    string `json:"stage"`
	Message  string `json:"message"` // a stall notice's text
	Resource *struct {
		Identity Resource `json:"identity"`
		State    string   `json:"state"`
		Reason   string   `json:"reason"`
	} `json:"resource"`
	Verdict *struct {
		Outcome string `json:"outcome"`
		Message string `json:"message"`
	} `json:"verdict"`
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(code)
}

// parseResource reads GROUP/VERSION/KIND/NAME (VERSION/KIND/NAME for the core group).
func parseResource(arg string) Resource {
	parts := strings.Split(arg, "/")
	if len(parts) < 3 {
		fail(2, "%s: want [GROUP/]VERSION/KIND/NAME", arg)
	}
	n := len(parts)
	return Resource{APIVersion: strings.Join(parts[:n-2], "/"), Kind: parts[n-2], Name: parts[n-1]}
}

func main() {
	deployment := flag.String("deployment", "", "the deployment these resources belong to")
	namespace := flag.String("namespace", "default", "namespace of the resources")
	timeout := flag.Duration("timeout", 5*time.Minute, "total budget")
	// One prefix per cluster on a shared NATS: the environment names it, as for stagewatch's own CLI.
	defaultPrefix := "stagewatch"
	if fromEnv := os.Getenv("STAGEWATCH_SUBJECT_PREFIX"); fromEnv != "" {
		defaultPrefix = fromEnv
	}
	prefix := flag.String("prefix", defaultPrefix, "NATS subject prefix ($STAGEWATCH_SUBJECT_PREFIX, else stagewatch)")
	verifyKey := flag.String("verify-key", os.Getenv("STAGEWATCH_VERIFY_KEY"), "the service's public keys, comma separated ($STAGEWATCH_VERIFY_KEY); none: nothing is verified")
	allowUnverified := flag.Bool("allow-unverified", false, "without a key, take a succeeded verdict as reached (exit 0) rather than unknown (exit 3): for a service that signs nothing, on purpose")
	flag.Parse()
	keys := strings.FieldsFunc(*verifyKey, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
	request := Request{
		Key:              fmt.Sprintf("go-client-%d/%s", time.Now().UnixNano(), *deployment),
		Deployment:       *deployment,
		Require:          "healthy",
		TimeoutSeconds:   int(timeout.Seconds()),
		DefaultNamespace: *namespace,
	}
	for _, arg := range flag.Args() {
		request.Resources = append(request.Resources, parseResource(arg))
	}

	url := os.Getenv("NATS_URL")
	if url == "" {
		url = nats.DefaultURL
	}
	nc, err := nats.Connect(url)
	if err != nil {
		fail(3, "cannot connect to NATS at %s: %v", url, err)
	}
	defer nc.Close()

	body, _ := json.Marshal(request)
	msg, err := nc.Request(*prefix+".observe", body, 10*time.Second)
	if err != nil {
		fail(3, "no stagewatch service answered on %s.observe: %v", *prefix, err)
	}
	var reply Reply
	if err := json.Unmarshal(msg.Data, &reply); err != nil || !reply.OK {
		if reply.Error != nil {
			fail(2, "refused (%s): %s", reply.Error.Code, reply.Error.Message)
		}
		fail(3, "unreadable reply: %s", msg.Data)
	}

	// The events are kept by the stream <PREFIX>_EVENTS: an ordered consumer from the first event
	// reads them all, even those published before it was created.
	js, err := jetstream.New(nc)
	if err != nil {
		fail(3, "JetStream: %v", err)
	}
	stream := strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(*prefix)) + "_EVENTS"
	ctx, cancel := context.WithTimeout(context.Background(), *timeout+time.Minute)
	defer cancel()
	consumer, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{
		// Both subject layouts: <prefix>.events.<deployment>.<id>, and with a tenants file <prefix>.events.<tenant>.<deployment>.<id>.
		FilterSubjects: []string{fmt.Sprintf("%s.events.*.%s", *prefix, reply.ObservationID), fmt.Sprintf("%s.events.*.*.%s", *prefix, reply.ObservationID)},
	})
	if err != nil {
		fail(3, "following %s: %v", reply.ObservationID, err)
	}
	events, err := consumer.Messages()
	if err != nil {
		fail(3, "following %s: %v", reply.ObservationID, err)
	}
	defer events.Stop()
	fmt.Fprintf(os.Stderr, "observing %d resources as %s\n", len(request.Resources), reply.ObservationID)
	rejected := 0
	for {
		next, err := events.Next(jetstream.NextContext(ctx))
		if errors.Is(err, context.DeadlineExceeded) {
			fail(3, "no verdict for %s", reply.ObservationID)
		} else if err != nil {
			fail(3, "following %s: %v", reply.ObservationID, err)
		}
		if len(keys) > 0 {
			if problem := trusted(next.Data(), keys, reply.ObservationID, request.Key); problem != "" {
				if rejected++; rejected == 1 {
					fmt.Fprintf(os.Stderr, "ignored an event that failed verification (%s)\n", problem)
				}
				continue
			}
		}
		var event Event
		if err := json.Unmarshal(next.Data(), &event); err != nil {
			fail(3, "unreadable event: %s", next.Data())
		}
		switch {
		case event.Type == "progress" && event.Resource != nil:
			fmt.Fprintf(os.Stderr, "%s %s/%s: %s %s\n", event.Resource.Identity.Kind, event.Resource.Identity.Namespace, event.Resource.Identity.Name, event.Resource.State, event.Resource.Reason)
		case event.Type == "stage":
			fmt.Fprintf(os.Stderr, "stage %s reached\n", event.Stage)
		case event.Type == "stalled":
			fmt.Fprintf(os.Stderr, "stalled: %s\n", event.Message)
		case event.Type == "verdict" && event.Verdict != nil:
			fmt.Println(event.Verdict.Message)
			if event.Verdict.Outcome != "succeeded" {
				os.Exit(1)
			}
			if len(keys) == 0 && !*allowUnverified {
				// Anyone who may publish on the events subjects could have written it.
				fail(3, "the verdict says succeeded, but it was not verified (no STAGEWATCH_VERIFY_KEY): exit 3; give the service's key, or -allow-unverified")
			}
			os.Exit(0)
		}
	}
}
