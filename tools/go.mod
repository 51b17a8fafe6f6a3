module github.com/goiree/goiree/tools

go 1.26

require github.com/golang/glog v1.2.5 // indirect
