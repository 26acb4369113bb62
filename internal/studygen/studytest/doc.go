// Package studytest writes generated studies (internal/studygen) for tests.
package studytest
