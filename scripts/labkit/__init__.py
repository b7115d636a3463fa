"""Preflight's network lab: namespaces, impairments with ground-truth logs, and the accuracy benchmark.

Runs as root on Linux (network namespaces, veth, nftables/iptables, tc, NFQUEUE). See docs/lab.md.
"""
