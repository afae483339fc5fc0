// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/ipvsadm-parse.c: the patched ipvsadm's own command-line parser,
 * without a kernel.  Built by scripts/docs-check against the ipvsadm tree
 * that make ipvsadm leaves in build/ipvsadm/ipvsadm-1.31/: ipvsadm.c is
 * included whole, its main() renamed, and this main() runs what
 * ipvsadm runs before it first asks the kernel anything - parse_options()
 * (every option, every value: addresses, schedulers, pools, policies,
 * rule tests) and generic_opt_check() (which options each command takes),
 * plus the checks of an l7 command that need no kernel.  Exit 0: the
 * command line parses; 2 (ipvsadm's fail()): it does not, with ipvsadm's
 * own message.
 */
#define main ipvsadm_main
#include "ipvsadm.c"
#undef main

int main(int argc, char **argv)
{
	struct ipvs_command_entry ce;
	unsigned long long options = OPT_NONE;
	unsigned int format = FMT_NONE;

	memset(&ce, 0, sizeof(ce));
	ce.cmd = CMD_NONE;
	ce.dest.weight = 1;
	ce.dest.conn_flags = IP_VS_CONN_F_DROUTE;
	ce.svc.netmask = ((u_int32_t) 0xffffffff);

	if (parse_options(argc, argv, &ce, &options, &format))
		return 2;
	generic_opt_check(ce.cmd, options);
	if (ce.cmd >= CMD_ADDPOOL && ce.cmd <= CMD_DELRULE) {
		if (ce.svc.fwmark || ce.svc.protocol != IPPROTO_TCP)
			fail(2, "content rules and pools need a TCP service (-t)");
		if ((ce.cmd == CMD_ADDRULE || ce.cmd == CMD_EDITRULE) &&
		    !(options & (OPT_POOL | OPT_REJECT)))
			fail(2, "You need to supply the 'pool' or the 'reject' "
			     "option for the '%s' command", cmdnames[ce.cmd - 1]);
		if (ce.rule.flags & IPVS_L7_RULE_F_PATH_NOCASE &&
		    !(options & (OPT_PATH | OPT_PATH_PREFIX)))
			fail(2, "--path-nocase goes with --path or --path-prefix");
		if (ce.rule.flags & IPVS_L7_RULE_F_FALLTHROUGH && ce.rule.reject)
			fail(2, "--fallthrough goes with --pool, not --reject");
	}
	if ((ce.cmd == CMD_ADD || ce.cmd == CMD_EDIT) &&
	    options & (OPT_FORWARDED | OPT_PREFORK) &&
	    (ce.svc.fwmark || ce.svc.protocol != IPPROTO_TCP ||
	     strcmp(ce.svc.sched_name, "l7")))
		fail(2, "--forwarded and --prefork are options of TCP "
		     "services with -s l7");
	return 0;
}
