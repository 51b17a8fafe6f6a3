module github.com/goiree/goiree/compiler

go 1.26

require github.com/goiree/goiree/runtime v0.0.0

require (
	github.com/golang/glog v1.2.5 // indirect
	github.com/google/flatbuffers v25.2.10+incompatible // indirect
)

replace github.com/goiree/goiree/runtime => ../runtime
