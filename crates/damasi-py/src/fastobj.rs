//! Quick creation of the small immutable objects the per-call paths return (`Move` from
//! `Position.legal_moves`, `Position` from `Position.play`).
//!
//! PyO3's general path to a new `#[pyclass]` object looks the type's allocator up through
//! `PyType_GetSlot` at every call (the stable ABI, `abi3`, has no direct slot access) and moves
//! the value through several layers on the way. A tree walk written in Python makes millions of
//! these objects, so [`new_object`] looks the allocator and the value's offset in the object up
//! once per class and then only allocates and writes the value.
//!
//! It is sound for `frozen` classes without `__dict__` or weak-reference slots, whose object is
//! the Python object header followed by the value and zero-sized markers only. That is checked
//! when the class's cache is filled: an object made by PyO3 must hold its value right after the
//! header, and the type's `__basicsize__` must be exactly header plus value. If either check
//! fails the cache stays empty and every object is made by PyO3's path, so a PyO3 upgrade that
//! changed the layout would cost speed, never correctness. Objects made either way are the same
//! to PyO3 (same allocator, same layout).
//!
//! Freeing costs as much as making: PyO3's `tp_dealloc` enters its unwinding guard, bumps a
//! thread-local counter and looks the type and its `tp_free` up at every object. For these
//! classes, whose values need no drop, the cache also installs `plain_dealloc` (free the memory,
//! release the type), after checking the type object's fields against the slot API; if a check
//! fails, PyO3's `tp_dealloc` stays.

use std::mem::size_of;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyList;
use pyo3::{PyClass, PyClassInitializer};

/// What [`new_object`] needs to make an object of one class without PyO3's general path.
pub(crate) struct FastNew {
    /// The class's type object (kept alive by PyO3 for the life of the module).
    ty: *mut ffi::PyTypeObject,
    /// The type's `tp_alloc`.
    alloc: ffi::allocfunc,
    /// Bytes from the start of the object to the value.
    offset: usize,
}

// SAFETY: the type object pointer is only dereferenced (by the allocator) while attached to
// the interpreter, and the type object lives as long as the module.
unsafe impl Send for FastNew {}
// SAFETY: as above; the fields are never written after the cache is filled.
unsafe impl Sync for FastNew {}

/// A `frozen` `#[pyclass]` whose objects [`new_object`] may make: a plain `Copy` value, no
/// `__dict__`, no weak references.
pub(crate) trait FastClass:
    PyClass<Frozen = True> + Into<PyClassInitializer<Self>> + Copy + Sync
{
    /// The class's cache, filled on first use (`None` if the layout checks failed).
    fn fast_new() -> &'static PyOnceLock<Option<FastNew>>;
}

impl FastNew {
    /// Makes one object of `T` holding `sample` with PyO3 and reads the allocator and layout
    /// from it and from the type; `None` if the layout is not header-then-value.
    fn probe<T: FastClass>(py: Python<'_>, sample: T) -> Option<FastNew> {
        let obj = Bound::new(py, sample).ok()?;
        let offset = (obj.get() as *const T as usize).checked_sub(obj.as_ptr() as usize)?;
        let basicsize: usize = T::type_object(py)
            .getattr("__basicsize__")
            .ok()?
            .extract()
            .ok()?;
        if offset != size_of::<ffi::PyObject>() || basicsize != offset + size_of::<T>() {
            return None;
        }
        let ty = T::type_object_raw(py);
        drop(obj);
        // SAFETY: `ty` is a valid heap type object of `T`, whose value needs no drop.
        unsafe { install_dealloc::<T>(ty, basicsize) };
        // SAFETY: `ty` is a valid heap type object; `Py_tp_alloc` is a slot every type has
        // (inherited from `object` if not set).
        let slot = unsafe { ffi::PyType_GetSlot(ty, ffi::Py_tp_alloc) };
        let alloc: ffi::allocfunc = if slot.is_null() {
            ffi::PyType_GenericAlloc
        } else {
            // SAFETY: the `Py_tp_alloc` slot holds an `allocfunc`.
            unsafe { std::mem::transmute::<*mut std::ffi::c_void, ffi::allocfunc>(slot) }
        };
        Some(FastNew { ty, alloc, offset })
    }
}

/// Frees an object of a class whose value needs no drop: what PyO3's `tp_dealloc` does for
/// such a class (give the memory back with the type's `tp_free`) without its per-call
/// overhead (an unwinding guard, a thread-local counter, two type look-ups), plus the release
/// of the reference to the heap type that `PyType_GenericAlloc` took.
unsafe extern "C" fn plain_dealloc(obj: *mut ffi::PyObject) {
    // SAFETY: Python calls `tp_dealloc` once, on an object no one references any more, of a
    // non-GC heap type whose `tp_free` was checked to be `PyObject_Free`.
    unsafe {
        let ty = ffi::Py_TYPE(obj);
        ffi::PyObject_Free(obj.cast());
        ffi::Py_DECREF(ty.cast());
    }
}

/// Number of pointer-sized fields before `tp_dealloc` in CPython's `PyTypeObject` (reference
/// count, type, size, `tp_name`, `tp_basicsize`, `tp_itemsize`); the same from CPython 3.0 to
/// 3.14 in the default (not free-threaded) build, and checked against the slot API below.
const TP_DEALLOC_FIELD: usize = 6;
/// Index of `tp_basicsize` in the same count.
const TP_BASICSIZE_FIELD: usize = 4;

/// Makes [`plain_dealloc`] the `tp_dealloc` of `ty` if every check passes: `T` needs no drop,
/// the type is a non-GC heap type whose `tp_free` is `PyObject_Free`, and the type object's
/// fields read where `PyTypeObject` keeps them agree with the slot API (`tp_dealloc`) and with
/// `__basicsize__`. Otherwise it leaves the type alone.
///
/// # Safety
/// `ty` must be the type object of `T`, with `basicsize` its `__basicsize__`.
unsafe fn install_dealloc<T: FastClass>(ty: *mut ffi::PyTypeObject, basicsize: usize) {
    if std::mem::needs_drop::<T>() {
        return;
    }
    // SAFETY: `ty` is a valid type object; the slot and flag functions only read it. The raw
    // reads stay inside the type object (a `PyHeapTypeObject`, far larger than seven
    // pointers), and the field is written only once the reads have shown it is `tp_dealloc`.
    unsafe {
        let flags = ffi::PyType_GetFlags(ty);
        if flags & ffi::Py_TPFLAGS_HEAPTYPE == 0 || flags & ffi::Py_TPFLAGS_HAVE_GC != 0 {
            return;
        }
        let free = ffi::PyType_GetSlot(ty, ffi::Py_tp_free);
        let dealloc = ffi::PyType_GetSlot(ty, ffi::Py_tp_dealloc);
        if free != ffi::PyObject_Free as *mut std::ffi::c_void || dealloc.is_null() {
            return;
        }
        let fields = ty.cast::<*mut std::ffi::c_void>();
        let size_field = fields.add(TP_BASICSIZE_FIELD).cast::<ffi::Py_ssize_t>();
        let dealloc_field = fields.add(TP_DEALLOC_FIELD);
        if *dealloc_field != dealloc || *size_field != basicsize as ffi::Py_ssize_t {
            return;
        }
        *dealloc_field = plain_dealloc as *mut std::ffi::c_void;
        ffi::PyType_Modified(ty);
    }
}

/// A new Python object of class `T` holding `value`.
#[inline]
pub(crate) fn new_object<T: FastClass>(py: Python<'_>, value: T) -> PyResult<Bound<'_, T>> {
    match T::fast_new().get_or_init(py, || FastNew::probe(py, value)) {
        Some(f) => {
            // SAFETY: `alloc` is the type's own allocator, called as PyO3 calls it; it returns
            // zeroed memory of `__basicsize__` bytes with the header set, or null with an
            // exception. The value goes to the offset where PyO3 keeps it, and the probe checked
            // that nothing else but zero-sized markers follows the header.
            unsafe {
                let obj = (f.alloc)(f.ty, 0);
                if obj.is_null() {
                    return Err(PyErr::fetch(py));
                }
                std::ptr::write(obj.cast::<u8>().add(f.offset).cast::<T>(), value);
                Ok(Bound::from_owned_ptr(py, obj).cast_into_unchecked())
            }
        }
        None => Bound::new(py, value),
    }
}

/// A new Python list of objects of class `T`, one for each value.
pub(crate) fn new_list<'py, T: FastClass>(
    py: Python<'py>,
    values: impl ExactSizeIterator<Item = T>,
) -> PyResult<Bound<'py, PyList>> {
    let n = values.len();
    // SAFETY: `PyList_New` returns a new reference (a list of `n` empty slots) or null with an
    // exception; each slot is filled once below (`PyList_SetItem` steals the reference), and
    // a list dropped with slots still empty (on an error) is freed correctly by Python.
    unsafe {
        let list = Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))?;
        for (i, v) in values.take(n).enumerate() {
            let obj = new_object(py, v)?;
            ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, obj.into_ptr());
        }
        Ok(list.cast_into_unchecked())
    }
}
