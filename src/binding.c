/* being written */ typedef int cc_placeholder_binding;
