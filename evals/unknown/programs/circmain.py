import circ.models
