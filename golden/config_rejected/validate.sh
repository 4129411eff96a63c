#!/bin/sh
# Stands in for a pipeline tool that reports a pydantic validation error
# and still exits 0: the case must be judged by its output.
if grep -q 'params: \[.*, [0-9]' project.yaml; then
  cat <<'MSG'
1 validation error for ProjectConfig
pipelines.0.nodes.2.params.1
  Input should be a valid string [type=string_type, input_value=5, input_type=int]
    For further information visit https://errors.pydantic.dev/2.13/v/string_type
MSG
fi
exit 0
