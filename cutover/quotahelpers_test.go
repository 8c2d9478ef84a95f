package cutover

// BoundedWaves is boundedWaves, for the external test package's table
// of bounded overlaps (quota_test.go).
var BoundedWaves = boundedWaves
