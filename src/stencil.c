/* being written */ typedef int cc_placeholder_stencil;
