"""Binds every feature file under features/ to the step definitions (features/steps/)."""

from pytest_bdd import scenarios

scenarios(".")
