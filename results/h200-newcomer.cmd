cp -r of the tree less build outputs; env -u TMPDIR sh -c 'make && ./harness; make test'
