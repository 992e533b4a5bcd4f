"""This program: its stack configuration, the composition of components, and offline tools."""
