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
