"""Pictures and reports (optional, matplotlib): link loads, allocations, hop histograms, Rubik boxes, HTML."""
