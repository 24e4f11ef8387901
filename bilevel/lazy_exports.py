"""Packages whose public names are imported from their submodules on first use (PEP 562).

``bilevel`` and ``bilevel.certify`` list their public names in ``_EXPORTS`` (name -> submodule) and call
:func:`make_lazy`, so that importing them loads no submodule: ``import bilevel.certify`` and ``bilevel --help``
load no Pyomo, and ``bilevel certify --help`` no SciPy.
"""
from __future__ import annotations

import importlib
import sys
import types

__all__ = ["LazyPackage", "make_lazy"]


class LazyPackage(types.ModuleType):
    """A package module whose names in ``_EXPORTS`` (name -> submodule, relative) are imported on first access
    and then bound in the package, so that later accesses neither import nor go through ``__getattr__``.

    A public name that is also its submodule's name (``bilevel.tune``, ``bilevel.certify.dagger``) stays the
    function: the import system binds a submodule as an attribute of its package once it has run (the module
    ``bilevel.tune`` when it is first imported from anywhere), and :meth:`__setattr__` keeps the function there
    instead. An unknown name raises AttributeError, as for any module."""

    def __getattr__(self, name):
        exports = self.__dict__.get("_EXPORTS", {})
        if name not in exports:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{exports[name]}", self.__name__), name)
        setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted(set(self.__dict__) | set(self.__dict__.get("__all__", ())))

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and self.__dict__.get("_EXPORTS", {}).get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


def make_lazy(package: str) -> None:
    """Turn the already imported package module named ``package`` into a :class:`LazyPackage`; it must define
    ``_EXPORTS``. Raises KeyError for a package that is not imported."""
    sys.modules[package].__class__ = LazyPackage
