// Package jsoncontract holds no code, only a test: every field name the
// files users' scripts read can hold (the result of run and iozone, a
// sweep's, a study's, hosts --format json, and the CSV's columns), checked
// against the list committed in testdata, so that no change renames or
// drops one unnoticed (DESIGN §9: fields may be added, never renamed or
// dropped).
package jsoncontract
