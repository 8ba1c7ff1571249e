"""The passes, one module each, in pipeline order: admit, screen, dedup, budget, fit (order, conflicts,
render, recount), ledger. Each is a function of what the previous one produced; `assemble` wires them."""
