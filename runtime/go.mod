module github.com/goiree/goiree/runtime

go 1.26

require (
	github.com/golang/glog v1.2.5
	github.com/google/flatbuffers v25.2.10+incompatible
)
