package karpenterapi

// crds.go: CRDs, tgmigrate's own structural schema of the fields this
// package reads and writes (everything else is preserved unknown), for
// envtest.

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// CRDs returns the CustomResourceDefinitions of NodePool, NodeClaim and
// EC2NodeClass for a real API server. They are written here, from
// Karpenter's documented v1 API, not taken from Karpenter: each validates
// the fields tgmigrate writes as Karpenter's CRDs do (a selector term is an
// id or tags; at most 30 terms; a budget's nodes is a count or a
// percentage; reasons are Underutilized, Empty or Drifted) and keeps every
// other field unvalidated. Each has the status subresource.
func CRDs() []*apiextensionsv1.CustomResourceDefinition {
	preserved := func() apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}
	}
	term := apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"id": {Type: "string", Pattern: `^[a-z]+-[0-9a-z]+$`},
			"tags": {Type: "object", MaxProperties: ptr.To[int64](20),
				AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
		},
		XPreserveUnknownFields: ptr.To(true),
		XValidations: apiextensionsv1.ValidationRules{{
			Rule:    "has(self.id) != has(self.tags)",
			Message: "a term is an id or tags, exactly one of them",
		}},
	}
	terms := apiextensionsv1.JSONSchemaProps{
		Type: "array", MinItems: ptr.To[int64](1), MaxItems: ptr.To[int64](30),
		Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &term},
	}
	nodeClassSpec := preserved()
	nodeClassSpec.Required = []string{"subnetSelectorTerms"}
	nodeClassSpec.Properties = map[string]apiextensionsv1.JSONSchemaProps{
		"subnetSelectorTerms":        terms,
		"securityGroupSelectorTerms": terms,
		"associatePublicIPAddress":   {Type: "boolean"},
	}
	budget := apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"nodes"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"nodes": {Type: "string", Pattern: `^((100|[0-9]{1,2})%|[0-9]+)$`},
			"reasons": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "string",
				Enum: []apiextensionsv1.JSON{{Raw: []byte(`"Underutilized"`)}, {Raw: []byte(`"Empty"`)}, {Raw: []byte(`"Drifted"`)}},
			}}},
			"schedule": {Type: "string"},
			"duration": {Type: "string"},
		},
	}
	disruption := preserved()
	disruption.Properties = map[string]apiextensionsv1.JSONSchemaProps{
		"budgets": {Type: "array", MaxItems: ptr.To[int64](50), Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &budget}},
	}
	poolSpec := preserved()
	poolSpec.Properties = map[string]apiextensionsv1.JSONSchemaProps{"disruption": disruption}

	mk := func(group, kind, plural string, spec apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: group,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: lower(kind)},
				Scope: apiextensionsv1.ClusterScoped,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"apiVersion": {Type: "string"},
							"kind":       {Type: "string"},
							"metadata":   {Type: "object"},
							"spec":       spec,
							"status":     preserved(),
						},
					}},
				}},
			},
		}
	}
	return []*apiextensionsv1.CustomResourceDefinition{
		mk(NodePoolGVK.Group, NodePoolGVK.Kind, "nodepools", poolSpec),
		mk(NodeClaimGVK.Group, NodeClaimGVK.Kind, "nodeclaims", preserved()),
		mk(EC2NodeClassGVK.Group, EC2NodeClassGVK.Kind, "ec2nodeclasses", nodeClassSpec),
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
