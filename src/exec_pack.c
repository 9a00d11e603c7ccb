/* being written */ typedef int cc_placeholder_exec_pack;
