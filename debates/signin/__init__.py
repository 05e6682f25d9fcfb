"""Signing in: local passwords (with allauth's TOTP) and the company's identity providers.

The providers themselves are settings (teorema/settings.py, "Sign-in"); this package holds what
Teorema decides about them: who may sign up, which group a new user joins, and the check that the
group exists.
"""
