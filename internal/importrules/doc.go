// Package importrules holds no code, only a test: the rules the packages'
// doc comments state about what each may import, checked against what
// each does import, so that a rule broken by a later change fails the
// suite instead of going unnoticed.
package importrules
