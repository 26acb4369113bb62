// Package studytest writes generated studies (internal/testkit/studygen) for tests.
package studytest
