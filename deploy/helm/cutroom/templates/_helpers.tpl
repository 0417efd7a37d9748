{{/* <release>-cutroom, unless the release is already named cutroom. */}}
{{- define "cutroom.fullname" -}}
{{- if contains "cutroom" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-cutroom" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "cutroom.labels" -}}
app.kubernetes.io/name: cutroom
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "coordinator") */}}
{{- define "cutroom.selector" -}}
app.kubernetes.io/name: cutroom
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "cutroom.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "cutroom.fullname" .)) -}}
{{- end -}}

{{- define "cutroom.image" -}}
{{- printf "%s:%s" .repository .tag -}}
{{- end -}}

{{/* Settings given by name: a map rendered as env entries, values quoted. */}}
{{- define "cutroom.envMap" -}}
{{- range $name, $value := . }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}
