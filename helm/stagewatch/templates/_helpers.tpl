{{/* Names and labels shared by every object of the release. */}}

{{- define "stagewatch.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release name alone when it already names the chart, as `helm install stagewatch` does. */}}
{{- define "stagewatch.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "stagewatch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "stagewatch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "stagewatch.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "stagewatch.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "stagewatch.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "stagewatch.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "stagewatch.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
The read rules, for the ClusterRole or for each namespace's Role. Argument: a dict with `Values`
and `clusterWide`. Workloads, pods and custom resources get get, list and watch; the other kinds
list and watch, all an informer needs (see values.yaml).
*/}}
{{- define "stagewatch.readRules" -}}
- apiGroups: ["apps"]
  resources: ["deployments", "replicasets", "statefulsets", "daemonsets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
{{- if .Values.warningEvents }}
# Warning events only (a field selector on type), shown with the readings they explain.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["list", "watch"]
{{- end }}
{{- if .Values.containerLogs.enabled }}
# The failing container's last log lines, read once per failed observation that asks (logs: true).
- apiGroups: [""]
  resources: ["pods/log"]
  verbs: ["get"]
{{- end }}
{{- range .Values.customResources }}
- apiGroups: [{{ .apiGroup | quote }}]
  resources: {{ toJson .resources }}
  verbs: ["get", "list", "watch"]
{{- end }}
{{- range .Values.rbac.namespacedKinds }}
- apiGroups: [{{ .apiGroup | quote }}]
  resources: {{ toJson .resources }}
  verbs: ["list", "watch"]
{{- end }}
{{- if not .clusterWide }}
# Secrets (metadata only, existence) in the namespaces watched; watching the whole cluster, a Role
# of their own in rbac.secretNamespaces instead (rbac.yaml).
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["list", "watch"]
{{- end }}
{{- if .clusterWide }}
{{- range .Values.rbac.clusterKinds }}
- apiGroups: [{{ .apiGroup | quote }}]
  resources: {{ toJson .resources }}
  verbs: ["list", "watch"]
{{- end }}
{{- end }}
{{- end }}

{{/*
A NATS credential as files of a mounted Secret (never environment values): the variables naming
them, and the Secret's keys projected into the volume `nats-credentials` (only the chosen way's:
the Secret may hold other credentials). Argument: an auth block, nats.auth or test.nats.auth.
*/}}
{{- define "stagewatch.natsAuthEnv" -}}
{{- if eq .type "credsFile" }}
- name: NATS_CREDS_FILE
  value: /etc/stagewatch/nats-credentials/{{ .credsFileKey }}
{{- else if eq .type "token" }}
- name: NATS_TOKEN_FILE
  value: /etc/stagewatch/nats-credentials/{{ .tokenKey }}
{{- else if eq .type "userPassword" }}
- name: NATS_USER_FILE
  value: /etc/stagewatch/nats-credentials/{{ .userKey }}
- name: NATS_PASSWORD_FILE
  value: /etc/stagewatch/nats-credentials/{{ .passwordKey }}
{{- end }}
{{- end }}

{{- define "stagewatch.natsAuthItems" -}}
{{- range (ternary (list .credsFileKey) (ternary (list .tokenKey) (list .userKey .passwordKey) (eq .type "token")) (eq .type "credsFile")) }}
- key: {{ . }}
  path: {{ . }}
{{- end }}
{{- end }}

{{/*
The test pod's labels (templates/tests): its own app.kubernetes.io/name, so that the service's
selector (the Service, the PodDisruptionBudget, the service's NetworkPolicy) never picks it.
*/}}
{{- define "stagewatch.testSelectorLabels" -}}
app.kubernetes.io/name: {{ include "stagewatch.name" . | trunc 58 | trimSuffix "-" }}-test
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "stagewatch.testLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "stagewatch.testSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
