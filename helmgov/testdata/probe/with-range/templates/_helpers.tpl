{{- define "portal.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "portal.podSpec" -}}
terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
containers:
  - name: portal
    image: registry.example.com/portal:5.2
    ports:
      - name: http
        containerPort: 8080
    lifecycle:
      preStop:
        sleep:
          seconds: 130
{{- end -}}
