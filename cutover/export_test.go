package cutover

// Golden compares got with testdata/name, or rewrites it with -update, for
// the external test package.
var Golden = golden
