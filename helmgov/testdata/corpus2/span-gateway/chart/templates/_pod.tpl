{{/*
The pod of the gateway: the gateway's own container, then the reloader
sidecar when it is on.
*/}}
{{- define "span-gateway.podTemplate" -}}
metadata:
  labels:
    {{- include "span-gateway.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/config: {{ toYaml .Values.config | sha256sum }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  {{- include "span-gateway.networkSettings" . | nindent 2 }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  containers:
    - name: gateway
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      args:
        - --config=/etc/span-gateway/config.yaml
        {{- range .Values.extraFlags }}
        - {{ . }}
        {{- end }}
      ports:
        - name: grpc
          containerPort: {{ .Values.grpcPort }}
          protocol: TCP
      volumeMounts:
        - name: config
          mountPath: /etc/span-gateway
      {{- with .Values.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- if .Values.reloader.enabled }}
    - name: reloader
      image: "{{ .Values.reloader.image.repository }}:{{ .Values.reloader.image.tag }}"
      args:
        - --watch-dir=/etc/span-gateway
        - --reload-url=http://127.0.0.1:{{ .Values.grpcPort }}/-/reload
      {{- range .Values.reloader.extraFlags }}
        - {{ . }}
      {{- end }}
      ports:
        - name: reloader
          containerPort: {{ .Values.reloader.port }}
      volumeMounts:
        - name: config
          mountPath: /etc/span-gateway
      {{- with .Values.reloader.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
  volumes:
    - name: config
      configMap:
        name: {{ include "span-gateway.fullname" . }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
