module github.com/goiree/goiree/tools

go 1.26

require github.com/golang/glog v1.2.5

require (
	github.com/goiree/goiree/compiler v0.0.0
	github.com/goiree/goiree/runtime v0.0.0
	github.com/google/flatbuffers v25.2.10+incompatible
)

replace (
	github.com/goiree/goiree/compiler => ../compiler
	github.com/goiree/goiree/runtime => ../runtime
)
