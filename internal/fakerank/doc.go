// Package fakerank plays rank processes inside a test binary: members of
// a barrier session that answer the coordinator's requests with a
// handler the test gives, so that the barrier's own tests and the
// coordinator's job loop run against ranks that do no I/O, fail where a
// test says, and leave nothing behind.
//
// It is imported only by tests. It does not import barrier, whose own
// (in-package) tests use it: the member type is a type parameter, which
// *barrier.Member satisfies with *barrier.Request.
package fakerank
