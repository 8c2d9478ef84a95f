package elbv2model

// paging.go: paging markers.

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// maxPageSize is the largest PageSize the Describe* operations accept.
const maxPageSize = 400

// page returns the items of list (sorted by seq) that follow marker, at most
// pageSize of them (default and maximum 400), and the marker of the next
// page, nil on the last one. A marker names the last item returned, so
// creations and deletions between two calls neither skip nor repeat items.
func page[T any](list []T, seq func(T) uint64, kind string, marker *string, pageSize *int32) ([]T, *string, error) {
	size := maxPageSize
	if pageSize != nil {
		if *pageSize < 1 || *pageSize > maxPageSize {
			return nil, nil, validationf("PageSize %d is outside 1-%d", *pageSize, maxPageSize)
		}
		size = int(*pageSize)
	}
	start := 0
	if marker != nil {
		after, err := decodeMarker(*marker, kind)
		if err != nil {
			return nil, nil, err
		}
		for start < len(list) && seq(list[start]) <= after {
			start++
		}
	}
	end := min(start+size, len(list))
	var next *string
	if end < len(list) {
		next = aws.String(encodeMarker(kind, seq(list[end-1])))
	}
	return list[start:end], next, nil
}

func encodeMarker(kind string, seq uint64) string {
	return base64.StdEncoding.EncodeToString([]byte(kind + ":" + strconv.FormatUint(seq, 10)))
}

func decodeMarker(s, kind string) (uint64, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, validationf("invalid Marker %q", s)
	}
	k, n, ok := strings.Cut(string(raw), ":")
	if !ok || k != kind {
		return 0, validationf("invalid Marker %q", s)
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	if err != nil {
		return 0, validationf("invalid Marker %q", s)
	}
	return seq, nil
}
