module github.com/goiree/goiree/compiler

go 1.26
