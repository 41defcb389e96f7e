/**
 * kwok Stages: the lifecycle kwok plays for Nodes and Pods of the local cluster.
 *
 * The default pod stages are kwok's own "fast" stages (Pending -> Running and Ready; Job-owned
 * pods then Succeeded; deleted pods removed), each narrowed to pods WITHOUT the fault label. The
 * fault stages select only pods WITH it, so at any moment exactly one stage can match a pod and
 * a default stage can never overwrite a fault. Every fault stage also guards on the state it
 * writes, so kwok does not rewrite it (and emit a watch event) again and again.
 *
 * Templates are Go text/template over the pod as JSON; kwok patches the rendered status with a
 * strategic merge patch, so conditions merge by type and PodScheduled (set by the scheduler) stays.
 *
 * A ready container whose image is pinned by digest (`registry/app@sha256:...`) gets that as its
 * `imageID`, as a kubelet writes it after pulling by digest (a tag it would resolve to the digest it
 * pulled, which kwok cannot): the verdict's image evidence and its attestation's subjects read it.
 */
import {
  DEFAULT_TERMINATION_MESSAGE,
  EXIT_CODE_ANNOTATION,
  FAULT_LABEL,
  Fault,
  TERMINATION_MESSAGE_ANNOTATION,
} from "./faults.ts";

const faultKey = `'.metadata.labels["${FAULT_LABEL}"]'`;

const notDeleting = `
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist`;

const podAddresses = `
      {{ $hostIPs := NodeIPsWith .spec.nodeName }}
      {{ with $hostIPs }}
      hostIP: {{ index . 0 | Quote }}
      hostIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      {{ $podIPs := PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      {{ with $podIPs }}
      podIP: {{ index . 0 | Quote }}
      podIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      startTime: {{ or .status.startTime $now | Quote }}`;

const notReadyConditions = (reason: string) => `
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ${reason}
        message: 'containers with unready status: [{{ range $i, $c := .spec.containers }}{{ if $i }} {{ end }}{{ $c.name }}{{ end }}]'
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ${reason}
        message: 'containers with unready status: [{{ range $i, $c := .spec.containers }}{{ if $i }} {{ end }}{{ $c.name }}{{ end }}]'
        type: ContainersReady`;

const podStage = (name: string, selector: string, statusTemplate: string) => `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${name}
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:${notDeleting}${selector}
  next:
    statusTemplate: |
      {{ $now := Now }}${statusTemplate}
`;

const withoutFault = `
    - key: ${faultKey}
      operator: DoesNotExist`;

const withFault = (fault: Fault) => `
    - key: ${faultKey}
      operator: In
      values: ['${fault}']`;

const podReady = podStage(
  "pod-ready",
  `${withoutFault}
    - key: '.status.phase'
      operator: In
      values: ['Pending']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']`,
  `
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: ContainersReady
      {{ range .spec.readinessGates }}
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: {{ .conditionType | Quote }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        {{ if contains "@sha256:" .image }}imageID: {{ .image | Quote }}{{ end }}
        name: {{ .name | Quote }}
        ready: true
        started: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        {{ if eq .restartPolicy "Always" }}
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
        {{ else }}
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
        {{ end }}
      {{ end }}${podAddresses}
      phase: Running`,
);

// A Job's pods run to completion; any other pod runs until deleted.
const podComplete = podStage(
  "pod-complete",
  `${withoutFault}
    - key: '.status.phase'
      operator: In
      values: ['Running']
    - key: '.metadata.ownerReferences.[].kind'
      operator: In
      values: ['Job']`,
  `
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: PodCompleted
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: PodCompleted
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Succeeded`,
);

const waitingStage = (fault: Fault, phase: string, containerStatus: string) =>
  podStage(
    `pod-fault-${fault.toLowerCase()}`,
    `${withFault(fault)}
    - key: '.status.containerStatuses.[].state.waiting.reason'
      operator: NotIn
      values: ['${fault}']`,
    `${notReadyConditions("ContainersNotReady")}
      containerStatuses:
      {{ range .spec.containers }}${containerStatus}
      {{ end }}${podAddresses}
      phase: ${phase}`,
  );

const imagePullBackOff = waitingStage(
  Fault.ImagePullBackOff,
  "Pending",
  `
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          waiting:
            reason: ImagePullBackOff
            message: {{ printf "Back-off pulling image %q" .image | Quote }}`,
);

const invalidImageName = waitingStage(
  Fault.InvalidImageName,
  "Pending",
  `
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          waiting:
            reason: InvalidImageName
            message: {{ printf "Failed to apply default image tag %q: couldn't parse image name %q: invalid reference format" .image .image | Quote }}`,
);

const crashLoopBackOff = waitingStage(
  Fault.CrashLoopBackOff,
  "Running",
  `
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 5
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
        state:
          waiting:
            reason: CrashLoopBackOff
            message: {{ printf "back-off 5m0s restarting failed container=%s pod=%s_%s(%s)" .name $.metadata.name $.metadata.namespace $.metadata.uid | Quote }}`,
);

const error = podStage(
  `pod-fault-${Fault.Error.toLowerCase()}`,
  `${withFault(Fault.Error)}
    - key: '.status.phase'
      operator: NotIn
      values: ['Failed', 'Succeeded']`,
  `
      {{ $annotations := or .metadata.annotations dict }}
      {{ $message := or ( index $annotations "${TERMINATION_MESSAGE_ANNOTATION}" ) "${DEFAULT_TERMINATION_MESSAGE}" }}
      {{ $exitCode := or ( index $annotations "${EXIT_CODE_ANNOTATION}" ) "1" }}${notReadyConditions("PodFailed")}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: {{ $exitCode }}
            reason: Error
            message: {{ $message | Quote }}
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}${podAddresses}
      phase: Failed`,
);

const neverReady = podStage(
  `pod-fault-${Fault.NeverReady.toLowerCase()}`,
  `${withFault(Fault.NeverReady)}
    - key: '.status.phase'
      operator: NotIn
      values: ['Running']`,
  `${notReadyConditions("ContainersNotReady")}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}${podAddresses}
      phase: Running`,
);

const podDelete = `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
  next:
    delete: true
`;

const nodeInitialize = `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $lastTransitionTime := or .metadata.creationTimestamp $now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $lastTransitionTime | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
      addresses:
      {{ with NodeIP }}
      - address: {{ . | Quote }}
        type: InternalIP
      {{ end }}
      {{ with NodeName }}
      - address: {{ . | Quote }}
        type: Hostname
      {{ end }}
      {{ with NodePort }}
      daemonEndpoints:
        kubeletEndpoint:
          Port: {{ . }}
      {{ end }}
      allocatable:
      {{ with .status.allocatable }}
      {{ YAML . 1 }}
      {{ else }}
        cpu: 1k
        memory: 1Ti
        pods: 1M
      {{ end }}
      capacity:
      {{ with .status.capacity }}
      {{ YAML . 1 }}
      {{ else }}
        cpu: 1k
        memory: 1Ti
        pods: 1M
      {{ end }}
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: {{ printf "kwok-%s" Version | Quote }}
        kubeProxyVersion: {{ printf "kwok-%s" Version | Quote }}
        containerRuntimeVersion: {{ printf "kwok-%s" Version | Quote }}
        kernelVersion: {{ printf "kwok-%s" Version | Quote }}
      phase: Running
`;

// Nodes keep their Ready condition fresh the way a kubelet would; nothing here depends on it
// (the node lifecycle controller is off), but a watcher of Nodes sees realistic traffic.
const nodeHeartbeat = `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-heartbeat
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.phase'
      operator: In
      values: ['Running']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: In
      values: ['True']
  delay:
    durationMilliseconds: 20000
    jitterDurationMilliseconds: 25000
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $lastTransitionTime := or .metadata.creationTimestamp $now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $lastTransitionTime | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
  immediateNextStage: true
`;

/** The kwok configuration file (a multi-document YAML of Stages) the harness hands to kwok. */
export const kwokStagesYaml = [
  nodeInitialize,
  nodeHeartbeat,
  podReady,
  podComplete,
  podDelete,
  imagePullBackOff,
  invalidImageName,
  crashLoopBackOff,
  error,
  neverReady,
].join("");
