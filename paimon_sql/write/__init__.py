"""The write layer.

Bucket assignment, sequence numbers, data files (`data_file`) and their statistics (`stats`).
"""
