{{/*
portal.ingress: a component's Ingress, its annotations its own over the
global ones.
  {{ include "portal.ingress" (dict "root" $ "name" "api" "component" .Values.api) }}
*/}}
{{- define "portal.ingress" -}}
{{- $c := .component -}}
{{- if $c.ingress.enabled }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .root.Release.Name }}-{{ .name }}
  {{- with mergeOverwrite (deepCopy .root.Values.global.ingress.annotations) $c.ingress.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  ingressClassName: {{ $c.ingress.className }}
  rules:
    - host: {{ $c.ingress.host }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ .root.Release.Name }}-{{ .name }}
                port:
                  name: http
{{- end }}
{{- end -}}
