/* being written */ typedef int cc_placeholder_nbh;
