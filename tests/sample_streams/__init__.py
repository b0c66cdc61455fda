"""Tests of the sample streams, presets and generators (sample_streams/).

- test_samples.py: the samples load with their mapped columns, the presets parse, the generators."""
