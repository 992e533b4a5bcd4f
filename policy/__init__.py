"""The hyperpod-dpd CrossGuard policy pack: the program's own rules, applied by the engine."""
