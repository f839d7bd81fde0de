"""The bottom layer: what every stage and every operator uses, with no operator knowledge
(element types and their order keys, sequences along an axis, processes, the machine, safe
YAML and the tools' files, atomic writes, text for messages, command-line plumbing)."""
